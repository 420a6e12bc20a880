// Reference for pipe_sum4: the operands are registered, each pair is added in the second stage and the two
// pair sums in the third, one adder level per stage as a pipeline is usually first written.
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
    reg [7:0] a_q, b_q, c_q, d_q;
    reg [8:0] ab_q, cd_q;
    reg       v1, v2;

    always @(posedge clk) begin
        if (rst) begin
            a_q <= 8'd0; b_q <= 8'd0; c_q <= 8'd0; d_q <= 8'd0;
            ab_q <= 9'd0; cd_q <= 9'd0;
            sum <= 10'd0;
            v1 <= 1'b0; v2 <= 1'b0; out_valid <= 1'b0;
        end else begin
            a_q <= a; b_q <= b; c_q <= c; d_q <= d;
            ab_q <= a_q + b_q;
            cd_q <= c_q + d_q;
            sum <= ab_q + cd_q;
            v1 <= in_valid; v2 <= v1; out_valid <= v2;
        end
    end
endmodule
