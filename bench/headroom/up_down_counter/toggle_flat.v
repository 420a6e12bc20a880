// kind: arith
// change: the wrap-around compares (==FFFF -> 0, ==0 -> FFFF) are the natural modulo-2^16 wrap, so the counter becomes a toggle counter (bit i flips when all lower bits equal up_down) with one AND-prefix instead of an incrementer, a decrementer, two 16-bit compares and muxes; Yosys cannot see that the compares are redundant.
module up_down_counter (input wire clk, input wire reset, input wire up_down, output reg [15:0] count);
wire [15:0] e = ~(count ^ {16{up_down}});
wire [15:0] t;
genvar i;
generate for (i=0;i<16;i=i+1) begin: g
  if (i==0) assign t[i] = 1'b1; else assign t[i] = &e[i-1:0];
end endgenerate
always @(posedge clk or posedge reset)
    if (reset) count <= 16'b0;
    else count <= count ^ t;
endmodule
