// kind: share
// change: no headroom found: the four identical a+b/b+a branches become one sum with one compare and one zero test, which Yosys already merges, so this only matches the reference (a single shared add/sub adder was slower, ratio 0.70).
module fixed_point_subtractor #(
	parameter Q = 15,
	parameter N = 32
	)
	(
    input [N-1:0] a,
    input [N-1:0] b,
    output [N-1:0] c
    );
wire same = a[N-1] == b[N-1];
wire [N-2:0] d = a[N-2:0] - b[N-2:0];
wire [N-2:0] s = a[N-2:0] + b[N-2:0];
wire gt = a[N-2:0] > b[N-2:0];
assign c = {same ? a[N-1] : (s != 0) & ~(a[N-1] ^ gt), same ? d : s};
endmodule
