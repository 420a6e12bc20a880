// kind: share
// change: the add, the two subtractions and the compare of the reference (under mutually exclusive sign cases) become one adder whose second operand is conditionally inverted, the compare is its carry and |a-b| a conditional negation; Yosys does not share arithmetic across exclusive branches.
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
wire gt = ~lt & (s[N-2:0] != 0);
assign c = {same ? a[N-1] : (a[N-1] ? gt : lt), mag};
endmodule
