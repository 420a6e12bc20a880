// kind: width
// change: no gain: the 4-bit counter that only reaches 0..2 becomes 2 bits, but synthesis already drops the constant upper flops itself (same Nangate45 netlist).
module freq_divbyeven(
    clk,
    rst_n,
    clk_div
);
    input clk;
    input rst_n;
    output clk_div;
    reg clk_div;

    parameter NUM_DIV = 6;
    reg    [1:0] cnt;

always @(posedge clk or negedge rst_n)
    if(!rst_n) begin
        cnt     <= 2'd0;
        clk_div    <= 1'b0;
    end
    else if(!cnt[1]) begin
        cnt     <= cnt + 1'b1;
        clk_div    <= clk_div;
    end
    else begin
        cnt     <= 2'd0;
        clk_div    <= ~clk_div;
    end
 endmodule
