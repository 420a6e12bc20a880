// kind: other
// change: no headroom found: the design is eight async set/reset flops wired as a rotation with no logic, which is already what the reference synthesizes to.
module ring_counter (
    input wire clk,
    input wire reset,
    output reg [7:0] out
);
always @(posedge clk or posedge reset)
    if (reset) out <= 8'b0000_0001;
    else out <= {out[6:0], out[7]};
endmodule
