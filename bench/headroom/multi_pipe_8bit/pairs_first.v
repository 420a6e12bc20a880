// kind: retime
// change: the four pair sums are computed straight from the inputs into stage 1 (no operand registers), the 4-way sum in stage 2 and stage 3 is a plain delay, without input gating or resets on data since mul_out is gated by en[2]; Yosys does not retime registers or exploit the masking.
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
   reg [9:0] s0, s1, s2, s3;
   reg [15:0] p2, p3;
   always @(posedge clk) begin
       s0 <= (mul_b[0] ? {2'b0, mul_a} : 10'd0) + (mul_b[1] ? {1'b0, mul_a, 1'b0} : 10'd0);
       s1 <= (mul_b[2] ? {2'b0, mul_a} : 10'd0) + (mul_b[3] ? {1'b0, mul_a, 1'b0} : 10'd0);
       s2 <= (mul_b[4] ? {2'b0, mul_a} : 10'd0) + (mul_b[5] ? {1'b0, mul_a, 1'b0} : 10'd0);
       s3 <= (mul_b[6] ? {2'b0, mul_a} : 10'd0) + (mul_b[7] ? {1'b0, mul_a, 1'b0} : 10'd0);
       p2 <= {6'd0, s0} + {4'd0, s1, 2'd0} + {2'd0, s2, 4'd0} + {s3, 6'd0};
       p3 <= p2;
   end
endmodule
