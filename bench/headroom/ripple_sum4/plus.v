// kind: arith
// change: one multi-operand `a + b + c + d` instead of three chained ripple adders of full-adder cells, so Yosys builds a carry-save compressor tree with a single carry-propagate adder; ABC only rewrites local gate windows and cannot turn three cascaded carry chains into a compressor tree.
module ripple_sum4 (
    input  [15:0] a,
    input  [15:0] b,
    input  [15:0] c,
    input  [15:0] d,
    output [17:0] sum
);
    assign sum = a + b + c + d;
endmodule
