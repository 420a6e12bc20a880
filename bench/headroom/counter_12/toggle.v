// kind: decode
// change: the ==11 compare and the hold mux become per-bit toggle terms gated by valid_count, using that 12..15 are unreachable (11 is the only reachable value with bits 3,1,0 set); Yosys does not know the reachable range.
module counter_12
(
  input rst_n,
  input clk,
  input valid_count,
  output reg [3:0] out
);
  wire v = valid_count;
  wire w = out[3] & out[1] & out[0];
  always @(posedge clk or negedge rst_n)
    if (!rst_n) out <= 4'b0000;
    else out <= out ^ {v & ((out[2] & out[1] & out[0]) | w),
                       v & out[1] & out[0] & ~out[3],
                       v & out[0],
                       v};
endmodule
