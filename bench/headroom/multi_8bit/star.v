// kind: arith
// change: the loop of eight conditional 16-bit additions in series becomes one A*B, which Yosys maps through its multiplier generator (a partial-product reduction tree) instead of a ripple of full-width adders it cannot re-associate.
module multi_8bit (
  input [7:0] A,
  input [7:0] B,
  output reg [15:0] product
);
  always @* product = A * B;
endmodule
