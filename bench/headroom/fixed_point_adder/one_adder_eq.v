// kind: share
// change: as one_adder (one conditionally inverted adder for a+b / a-b, compare from its carry, conditional negation) but with the zero test on the operands (a != b) instead of the adder output.
module fixed_point_adder #(
	parameter Q = 15,
	parameter N = 32
	)
	(
    input [N-1:0] a,
    input [N-1:0] b,
    output [N-1:0] c
    );
wire same = a[N-1] == b[N-1];
wire [N-1:0] s = {1'b0, a[N-2:0]} + {1'b0, b[N-2:0] ^ {(N-1){~same}}} + {{(N-1){1'b0}}, ~same};
wire lt = ~s[N-1];                      // different signs: a < b (borrow)
wire [N-2:0] mag = (~same & lt) ? -s[N-2:0] : s[N-2:0];
wire gt = ~lt & (a[N-2:0] != b[N-2:0]);
assign c = {same ? a[N-1] : (a[N-1] ? gt : lt), mag};
endmodule
