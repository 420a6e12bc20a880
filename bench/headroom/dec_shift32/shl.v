// kind: decode
// change: the 32-way case on the shift amount becomes `x << sh`, a logarithmic shifter of five 2:1 mux levels (one per bit of `sh`); Yosys keeps the case as a 32-input parallel mux of 32 words and ABC cannot factor that into per-bit stages.
module dec_shift32 (
    input  [31:0] x,
    input  [4:0]  sh,
    output [31:0] y
);
    assign y = x << sh;
endmodule
