// kind: retime
// change: two 32-bit half sums in stage 1, the high half takes the low carry in stage 2, then plain delay stages (about 261 flops instead of 356, no reset/enable on data since result only counts under o_en); Yosys does not retime or exploit the don't-care.
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
// result only matters while o_en: data registers need neither reset nor enable
reg [32:0] lo1; reg [32:0] hi1;
reg [64:0] r2, r3, r4;
always @(posedge clk) begin
    lo1 <= adda[31:0] + addb[31:0];
    hi1 <= adda[63:32] + addb[63:32];
    r2 <= {hi1 + lo1[32], lo1[31:0]};
    r3 <= r2;
    r4 <= r3;
end
assign result = r4;
endmodule
