// kind: arith
// change: the written-out shift-and-add array becomes one `*`, which Yosys maps with its own multiplier (booth-free, carry-save tree); the hand-written adder chain fixes a worse structure that ABC cannot rediscover
module mult8 (
    input  [7:0]  a,
    input  [7:0]  b,
    output [15:0] p
);
    assign p = a * b;
endmodule
