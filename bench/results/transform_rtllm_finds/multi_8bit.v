module multi_8bit (
  input [7:0] A,
  input [7:0] B,
  output reg [15:0] product
);
    always @* product = A * B;
endmodule
