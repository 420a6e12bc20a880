// kind: retime
// change: all four 16-bit chunk sums are computed in stage 1 and the chunk carries are resolved one per stage by 16-bit increments, so 17-bit partial sums travel down the pipe instead of delayed 32-bit operand pairs (266 flops instead of 356), and the data flops lose reset and enable since result only counts under o_en; Yosys neither retimes nor uses the don't-care.
module adder_pipe_64bit
#(
    parameter DATA_WIDTH = 64,
    parameter STG_WIDTH = 16
)
(
    input clk,
    input rst_n,
    input i_en,
    input [DATA_WIDTH-1:0] adda,
    input [DATA_WIDTH-1:0] addb,
    output [DATA_WIDTH:0] result,
    output reg o_en
);
reg stage1, stage2, stage3;
always @(posedge clk, negedge rst_n) begin
    if (!rst_n) begin
        stage1 <= 1'b0; stage2 <= 1'b0; stage3 <= 1'b0; o_en <= 1'b0;
    end else begin
        stage1 <= i_en; stage2 <= stage1; stage3 <= stage2; o_en <= stage3;
    end
end
reg [16:0] s0, s1, s2, s3;
reg [31:0] u2; reg [16:0] u2s2, u2s3; reg u2c;
reg [47:0] u3; reg [16:0] u3s3; reg u3c;
reg [64:0] u4;
always @(posedge clk) begin
    s0 <= adda[15:0] + addb[15:0];
    s1 <= adda[31:16] + addb[31:16];
    s2 <= adda[47:32] + addb[47:32];
    s3 <= adda[63:48] + addb[63:48];
    {u2c, u2[31:16]} <= s1 + s0[16];
    u2[15:0] <= s0[15:0];
    u2s2 <= s2; u2s3 <= s3;
    {u3c, u3[47:32]} <= u2s2 + u2c;
    u3[31:0] <= u2;
    u3s3 <= u2s3;
    u4 <= {u3s3 + u3c, u3};
end
assign result = u4;
endmodule
