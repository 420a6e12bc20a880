// kind: arith
// change: an explicit 4:2 carry-save layer (two rows of full adders, no carry propagation) ahead of one 18-bit adder, instead of three chained ripple adders; ABC cannot reassociate the cascaded carry chains into carry-save form.
module ripple_sum4 (
    input  [15:0] a,
    input  [15:0] b,
    input  [15:0] c,
    input  [15:0] d,
    output [17:0] sum
);
    // row 1: a + b + c -> s1 + 2*k1
    wire [15:0] s1 = a ^ b ^ c;
    wire [15:0] k1 = (a & b) | (a & c) | (b & c);
    // row 2: s1 + 2*k1 + d -> s2 + 2*k2 (17 bits wide)
    wire [16:0] x = {1'b0, s1};
    wire [16:0] y = {k1, 1'b0};
    wire [16:0] z = {1'b0, d};
    wire [16:0] s2 = x ^ y ^ z;
    wire [16:0] k2 = (x & y) | (x & z) | (y & z);
    assign sum = {1'b0, s2} + {k2, 1'b0};
endmodule
