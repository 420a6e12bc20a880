// kind: encoding
// change: both mod-5 counters become 3-bit shift sequences (000,001,011,110,100: next = {s[1:0], f}, f = ~(s[1]|s[2])) whose feedback f is exactly the next divided clock (cnt < 2), so the compares disappear; synthesis does not re-encode counters.
module freq_divbyodd(
    clk,
    rst_n,
    clk_div
);
    input clk;
    input rst_n;
    output clk_div;
    reg clk_div1, clk_div2;

    parameter NUM_DIV = 5;
    reg [2:0] s1, s2;
    wire f1 = ~(s1[1] | s1[2]);   // state is 000 or 001: cnt < 2
    wire f2 = ~(s2[1] | s2[2]);

always @(posedge clk or negedge rst_n)
    if(!rst_n) begin
        s1 <= 3'd0;
        clk_div1 <= 1'b1;
    end else begin
        s1 <= {s1[1:0], f1};
        clk_div1 <= f1;
    end

always @(negedge clk or negedge rst_n)
    if(!rst_n) begin
        s2 <= 3'd0;
        clk_div2 <= 1'b1;
    end else begin
        s2 <= {s2[1:0], f2};
        clk_div2 <= f2;
    end

    assign clk_div = clk_div1 | clk_div2;
endmodule
