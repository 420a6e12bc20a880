// kind: share
// change: no headroom found: less-than from one subtraction's borrow, equal from XNORs, greater as neither; ABC already reaches the same 6-input netlist from the reference (ratio ~1.0).
module comparator_3bit (
    input [2:0] A,
    input [2:0] B,
    output A_greater,
    output A_equal,
    output A_less
);
wire [3:0] d = {1'b0, A} - {1'b0, B};
assign A_less = d[3];
assign A_equal = A == B;
assign A_greater = ~(d[3] | A_equal);
endmodule
