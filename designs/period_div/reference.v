// Reference for period_div: the terminal count written as the period minus one.
module period_div (
    input        clk,
    input        rst,
    input  [9:0] period,
    output reg   tick,
    output reg   wave
);
    reg [9:0] count;

    always @(posedge clk) begin
        if (rst) begin
            count <= 10'd0;
            tick  <= 1'b0;
            wave  <= 1'b0;
        end else if (count == period - 1) begin
            count <= 10'd0;
            tick  <= 1'b1;
            wave  <= ~wave;
        end else begin
            count <= count + 1;
            tick  <= 1'b0;
        end
    end
endmodule
