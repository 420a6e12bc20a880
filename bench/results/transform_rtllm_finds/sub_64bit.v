module sub_64bit(
  input [63:0] A,
  input [63:0] B,
  output reg [63:0] result,
  output reg overflow
);
  // datapath rewrite (delay-first, e-graph): 2 eq, 1 sub
  wire dp7_1 = A[63];
  wire dp7_2 = B[63];
  wire [63:0] dp7_3 = A - B;
  wire dp7_4 = dp7_3[63];
  always @* begin
      result = A - B;
      overflow = (~(dp7_1 == dp7_2)) & (~(dp7_4 == dp7_1));
  end

endmodule