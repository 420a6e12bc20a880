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
    reg [9:0] plus_q;
    reg [9:0] ab_q_plus_cd_q;
    reg       v1, v2;

    wire [8:0] plus_q_a = a + b;
    wire [8:0] plus_q_b = c + d;
    always @(posedge clk) begin
        if (rst) begin
            plus_q <= 10'd0;   
            ab_q_plus_cd_q <= 10'd0; 
            sum <= 10'd0;
            v1 <= 1'b0; v2 <= 1'b0; out_valid <= 1'b0;
        end else begin
            plus_q <= plus_q_a + plus_q_b;   
            ab_q_plus_cd_q <= plus_q;
            sum <= ab_q_plus_cd_q;
            v1 <= in_valid; v2 <= v1; out_valid <= v2;
        end
    end
endmodule
