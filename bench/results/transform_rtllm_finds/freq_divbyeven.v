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
    // resynth: 6 reachable states of 6 flip-flop bits, 6 after merging; johnson code
    reg [2:0] rtla_s;
    wire [0:0] rtla_v = 1'b0;
    reg [0:0] rtla_o;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) rtla_s <= 3'd0;
        else rtla_s <= {rtla_s[1:0], ~rtla_s[2]};
    always @* rtla_o[0] = rtla_s[2];
    always @* clk_div = rtla_o[0:0];
endmodule
