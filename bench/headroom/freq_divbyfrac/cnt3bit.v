// kind: width
// change: the 4-bit counter that only reaches 0..6 becomes 3 bits and its compares use that range (cnt == 6 is cnt[2] & cnt[1]), since synthesis cannot prove bit 3 stays zero.
module freq_divbyfrac(
    input               rst_n ,
    input               clk,
    output              clk_div
    );

   reg [2:0]            cnt ;
   always @(posedge clk or negedge rst_n) begin
      if (!rst_n)
         cnt    <= 3'd0 ;
      else if (cnt[2] & cnt[1])
         cnt    <= 3'd0 ;
      else
         cnt    <= cnt + 1'b1 ;
   end

   reg                  clk_ave_r ;
   always @(posedge clk or negedge rst_n) begin
      if (!rst_n)
         clk_ave_r <= 1'b0 ;
      else
         clk_ave_r <= (cnt == 3'd0) | (cnt == 3'd4) ;
   end

   reg                  clk_adjust_r ;
   always @(negedge clk or negedge rst_n) begin
      if (!rst_n)
         clk_adjust_r <= 1'b0 ;
      else
         clk_adjust_r <= (cnt == 3'd1) | (cnt == 3'd4) ;
   end

   assign clk_div = clk_adjust_r | clk_ave_r ;

endmodule
