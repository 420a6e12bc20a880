// kind: offset_compare
// change: count == period - 1 (a 32-bit compare with a decrementer on period) becomes {carry, count + 1} == {0, period}, reading the incrementer the count already needs; with period 0 neither matches (count + 1 is never 0 with its carry bit).
module period_div (
    input        clk,
    input        rst,
    input  [9:0] period,
    output reg   tick,
    output reg   wave
);
    reg [9:0] count;
    wire [10:0] next = count + 11'd1;

    always @(posedge clk) begin
        if (rst) begin
            count <= 10'd0;
            tick  <= 1'b0;
            wave  <= 1'b0;
        end else if (next == {1'b0, period}) begin
            count <= 10'd0;
            tick  <= 1'b1;
            wave  <= ~wave;
        end else begin
            count <= next[9:0];
            tick  <= 1'b0;
        end
    end
endmodule
