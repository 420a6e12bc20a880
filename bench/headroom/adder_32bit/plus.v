// kind: arith
// change: the two-level hand-written CLA (XOR-based carry terms over adder_4/CLA_16 instances) becomes one 33-bit +, which Yosys maps through its own carry-lookahead and ABC maps smaller and faster than the XOR-of-products carry equations.
module adder_32bit(A,B,S,C32);
     input [32:1] A;
     input [32:1] B;
     output [32:1] S;
     output C32;
     assign {C32, S} = A + B;
endmodule
