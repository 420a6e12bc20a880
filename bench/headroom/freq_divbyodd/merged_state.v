// kind: encoding
// change: each edge's counter and divided clock (cnt 0..4 plus clk_div, 6 reachable states in 4 flops) become one 3-bit twisted-ring state whose bit 0 is the divided clock (next = {b1, b0 | ~b2 & ~b1, ~b2}), a state merging and re-encoding synthesis does not do.
module freq_divbyodd(
    clk,
    rst_n,
    clk_div
);
    input clk;
    input rst_n;
    output clk_div;

    parameter NUM_DIV = 5;

    // reference states (cnt, clk_div): (0,1) reset -> (1,1) -> (2,1) -> (3,0) -> (4,0) -> (0,0) -> (1,1)
    // encoded as 001 -> 011 -> 111 -> 110 -> 100 -> 000 -> 011, clk_div = bit 0
    reg [2:0] p;   // posedge side
    reg [2:0] n;   // negedge side

always @(posedge clk or negedge rst_n)
    if(!rst_n)
        p <= 3'b001;
    else
        p <= {p[1], p[0] | (~p[2] & ~p[1]), ~p[2]};

always @(negedge clk or negedge rst_n)
    if(!rst_n)
        n <= 3'b001;
    else
        n <= {n[1], n[0] | (~n[2] & ~n[1]), ~n[2]};

    assign clk_div = p[0] | n[0];
endmodule
