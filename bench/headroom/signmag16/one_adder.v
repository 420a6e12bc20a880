// kind: signmag_add
// change: the adder, the two subtractors and the magnitude compare of the sign cases become one adder whose second operand is inverted (with a carry-in) when the signs differ; its borrow is the compare, a conditional negation gives |a - b|, and the sign comes from the borrow and a zero test.
module signmag16 (
    input  [15:0] a,
    input  [15:0] b,
    output [15:0] y
);
    wire        diff = a[15] ^ b[15];
    wire [15:0] s    = {1'b0, a[14:0]} + ({1'b0, b[14:0]} ^ {16{diff}}) + {15'd0, diff};
    wire        lt   = diff & s[15];                     // different signs and |a| < |b|
    wire [14:0] mag  = lt ? -s[14:0] : s[14:0];
    assign y[14:0] = mag;
    assign y[15]   = ~diff ? a[15] : lt ? b[15] : (|s[14:0]) & a[15];
endmodule
