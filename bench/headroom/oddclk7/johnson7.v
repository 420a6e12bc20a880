// kind: encoding
// change: the rising-edge counter and high phase (7 reachable states, 4 flip-flops) become a 4-bit Johnson
// ring with one state skipped (0000 0001 0011 0111 1110 1100 1000: next = {s[2:0], ~s[3] & ~s[2]}) whose
// bit 0 is the high phase, so neither an incrementer, a wrap compare nor a less-than is left; the falling-edge
// copy and the OR stay.
module oddclk7 (
    input  clk,
    input  rst_n,
    output clk_out
);
    reg [3:0] s;
    reg       high_f;

    always @(posedge clk or negedge rst_n)
        if (!rst_n)
            s <= 4'b0000;
        else
            s <= {s[2:0], ~s[3] & ~s[2]};

    always @(negedge clk or negedge rst_n)
        if (!rst_n)
            high_f <= 1'b0;
        else
            high_f <= s[0];

    assign clk_out = s[0] | high_f;
endmodule
