// kind: encoding
// change: the mod-7 binary counter becomes a 3-bit XNOR LFSR with the same 7-state cycle from 000 (next state is a shift plus one XNOR instead of an incrementer and a wrap compare), a re-encoding synthesis does not do for a plain register.
module freq_divbyfrac(
    input               rst_n ,
    input               clk,
    output              clk_div
    );

   // cnt 0..6 of the reference as LFSR states 000,001,011,110,101,010,100
   reg [2:0]            s ;
   always @(posedge clk or negedge rst_n) begin
      if (!rst_n)
         s      <= 3'd0 ;
      else
         s      <= {s[1:0], ~(s[2] ^ s[1])} ;
   end

   reg                  clk_ave_r ;      // cnt == 0 (000) or cnt == 4 (101)
   always @(posedge clk or negedge rst_n) begin
      if (!rst_n)
         clk_ave_r <= 1'b0 ;
      else
         clk_ave_r <= ~s[1] & ~(s[2] ^ s[0]) ;
   end

   reg                  clk_adjust_r ;   // cnt == 1 (001) or cnt == 4 (101)
   always @(negedge clk or negedge rst_n) begin
      if (!rst_n)
         clk_adjust_r <= 1'b0 ;
      else
         clk_adjust_r <= s[0] & ~s[1] ;
   end

   assign clk_div = clk_adjust_r | clk_ave_r ;

endmodule
