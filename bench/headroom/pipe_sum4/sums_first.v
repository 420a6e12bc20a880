// kind: retime
// change: the pair sums are computed before the first register and the total before the second, so 9-bit
// sums and one 10-bit total travel down the pipe instead of four 8-bit operands and two 9-bit sums (38 data
// flops instead of 60), same three-cycle latency; Yosys does not move logic across registers.
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
    reg [8:0] ab_q, cd_q;
    reg [9:0] t_q;
    reg       v1, v2;

    always @(posedge clk) begin
        if (rst) begin
            ab_q <= 9'd0; cd_q <= 9'd0; t_q <= 10'd0; sum <= 10'd0;
            v1 <= 1'b0; v2 <= 1'b0; out_valid <= 1'b0;
        end else begin
            ab_q <= a + b;
            cd_q <= c + d;
            t_q <= ab_q + cd_q;
            sum <= t_q;
            v1 <= in_valid; v2 <= v1; out_valid <= v2;
        end
    end
endmodule
