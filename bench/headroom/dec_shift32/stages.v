// kind: decode
// change: an explicit five-stage barrel shifter (stage k shifts by 2^k when sh[k] is set) instead of decoding all 32 shift amounts; the stage structure is the closed form of the decode and is not found by ABC's local rewriting.
module dec_shift32 (
    input  [31:0] x,
    input  [4:0]  sh,
    output [31:0] y
);
    wire [31:0] s0 = sh[0] ? {x[30:0],  1'b0}  : x;
    wire [31:0] s1 = sh[1] ? {s0[29:0], 2'b0}  : s0;
    wire [31:0] s2 = sh[2] ? {s1[27:0], 4'b0}  : s1;
    wire [31:0] s3 = sh[3] ? {s2[23:0], 8'b0}  : s2;
    assign      y  = sh[4] ? {s3[15:0], 16'b0} : s3;
endmodule
