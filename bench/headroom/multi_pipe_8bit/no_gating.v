// kind: idle
// change: every internal register reaches mul_out only through the en[2] gate (which is 0 after reset), so the input gating by mul_en_in and the resets of the operand, pair-sum and product registers go, and the pair-sum registers are 10 bits wide; Yosys cannot see that these values are masked downstream.
module multi_pipe_8bit#(
    parameter size = 8
)(
          clk,
          rst_n,
          mul_a,
          mul_b,
          mul_en_in,
          mul_en_out,
          mul_out
);
   input clk;
   input rst_n;
   input mul_en_in;
   input [size-1:0] mul_a;
   input [size-1:0] mul_b;
   output reg mul_en_out;
   output reg [size*2-1:0] mul_out;
   reg [2:0] en;
   always @(posedge clk or negedge rst_n)
       if (!rst_n) begin en <= 3'd0; mul_en_out <= 1'b0; end
       else begin en <= {en[1:0], mul_en_in}; mul_en_out <= en[2]; end
   always @(posedge clk or negedge rst_n)
       if (!rst_n) mul_out <= 16'd0;
       else mul_out <= en[2] ? p3 : 16'd0;
   reg [7:0] ra, rb;
   reg [9:0] s0, s1, s2, s3;
   reg [15:0] p3;
   always @(posedge clk) begin
       ra <= mul_a; rb <= mul_b;
       s0 <= (rb[0] ? {2'b0, ra} : 10'd0) + (rb[1] ? {1'b0, ra, 1'b0} : 10'd0);
       s1 <= (rb[2] ? {2'b0, ra} : 10'd0) + (rb[3] ? {1'b0, ra, 1'b0} : 10'd0);
       s2 <= (rb[4] ? {2'b0, ra} : 10'd0) + (rb[5] ? {1'b0, ra, 1'b0} : 10'd0);
       s3 <= (rb[6] ? {2'b0, ra} : 10'd0) + (rb[7] ? {1'b0, ra, 1'b0} : 10'd0);
       p3 <= {6'd0, s0} + {4'd0, s1, 2'd0} + {2'd0, s2, 4'd0} + {s3, 6'd0};
   end
endmodule
