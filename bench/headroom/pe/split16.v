// kind: arith
// change: a*b mod 2^32 from 16-bit halves (lo*lo + (hi*lo + lo*hi) << 16), dropping the high halves' product that only reaches bits 32 and up; Yosys' multiplier already trims to the output width, the split measures worse (0.93x), and the flow's SAT cannot prove a 32-bit multiplier rewrite in its time limit (cosim only), so it would not count anyway.
module pe(
    input clk,
    input rst,
    input [31:0] a,
    input [31:0] b,
    output [31:0] c
);
    reg [31:0] cc;
    assign c = cc;
    // a*b mod 2^32 from 16-bit halves: the high halves' product only reaches bits 32 and up
    wire [31:0] ll = a[15:0] * b[15:0];
    wire [15:0] hl = a[31:16] * b[15:0];
    wire [15:0] lh = a[15:0] * b[31:16];
    always @(posedge clk or posedge rst) begin
        if (rst) cc <= 0;
        else     cc <= cc + ll + {hl + lh, 16'd0};
    end
endmodule
