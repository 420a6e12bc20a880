// kind: retime
// change: the whole sum is computed before the first register and the 10-bit total is delayed two more stages
// (30 data flops instead of 60; two adder levels in the first stage, still far inside the 10 ns period), same
// three-cycle latency; Yosys does not move logic across registers.
module pipe_sum4 (
    input            clk,
    input            rst,
    input            in_valid,
    input      [7:0] a,
    input      [7:0] b,
    input      [7:0] c,
    input      [7:0] d,
    output reg       out_valid,
    output reg [9:0] sum
);
    reg [9:0] t1, t2;
    reg       v1, v2;

    always @(posedge clk) begin
        if (rst) begin
            t1 <= 10'd0; t2 <= 10'd0; sum <= 10'd0;
            v1 <= 1'b0; v2 <= 1'b0; out_valid <= 1'b0;
        end else begin
            t1 <= (a + b) + (c + d);
            t2 <= t1;
            sum <= t2;
            v1 <= in_valid; v2 <= v1; out_valid <= v2;
        end
    end
endmodule
