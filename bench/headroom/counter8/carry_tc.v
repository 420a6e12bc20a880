// kind: share
// change: tc taken from the carry out of the incrementer the count already needs (q + 1 as 9 bits) instead of a separate 8-input compare with 8'hFF; measured 1.13x, below this design's noise floor (1.18x), so no gain counts.
module counter8 (
    input            clk,
    input            rst,
    input            en,
    input            load,
    input      [7:0] d,
    output reg [7:0] q,
    output           tc
);
    wire [8:0] inc = {1'b0, q} + 9'd1;     // its carry out is q == 8'hFF
    always @(posedge clk) begin
        if (rst)       q <= 8'd0;
        else if (load) q <= d;
        else if (en)   q <= inc[7:0];
    end
    assign tc = en & inc[8];
endmodule
