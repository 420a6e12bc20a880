// kind: share
// change: no headroom found: MSB-first magnitude comparator sharing per-bit equalities between greater and less; faster but larger than what ABC makes of the reference's subtractor (ratio < 1).
module comparator_4bit (
    input [3:0] A,
    input [3:0] B,
    output A_greater,
    output A_equal,
    output A_less
);
wire [3:0] e = ~(A ^ B);
wire [3:0] g = A & ~B;
wire [3:0] l = ~A & B;
assign A_greater = g[3] | (e[3] & g[2]) | (e[3] & e[2] & g[1]) | (e[3] & e[2] & e[1] & g[0]);
assign A_less    = l[3] | (e[3] & l[2]) | (e[3] & e[2] & l[1]) | (e[3] & e[2] & e[1] & l[0]);
assign A_equal   = &e;
endmodule
