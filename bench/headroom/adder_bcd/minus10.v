// kind: arith
// change: the +6 correction is written as a 4-bit subtract of 10 on the low sum bits (the carry out of +6 is dropped anyway), which gives ABC a slightly smaller start; marginal, likely within the noise floor.
module adder_bcd (
    input  [3:0] A,
    input  [3:0] B,
    input  Cin,
    output [3:0] Sum,
    output Cout
);
wire [4:0] t = A + B + Cin;
assign Cout = t > 5'd9;
assign Sum = Cout ? t[3:0] - 4'd10 : t[3:0];
endmodule
