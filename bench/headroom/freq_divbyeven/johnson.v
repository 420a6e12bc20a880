// kind: encoding
// change: the 2-bit counter plus toggle flop (6 reachable states, period 6) becomes a 3-bit Johnson counter whose top bit is clk_div (next = {j[1], j[0], ~j[2]}: one inverter, no compare or adder), a re-encoding synthesis does not do.
module freq_divbyeven(
    clk,
    rst_n,
    clk_div
);
    input clk;
    input rst_n;
    output clk_div;

    parameter NUM_DIV = 6;
    // (cnt, clk_div) = (0,0),(1,0),(2,0),(0,1),(1,1),(2,1) as 000,001,011,111,110,100
    reg [2:0] j;

always @(posedge clk or negedge rst_n)
    if(!rst_n)
        j <= 3'b000;
    else
        j <= {j[1], j[0], ~j[2]};

    assign clk_div = j[2];
 endmodule
