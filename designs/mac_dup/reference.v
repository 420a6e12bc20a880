// Reference for mac_dup: multiply-accumulate unit with a registered product.
module mac_dup (
    input             clk,
    input             rst,
    input             en,
    input             clr,
    input      [7:0]  a,
    input      [7:0]  b,
    output reg [15:0] prod,
    output reg [19:0] acc
);
    always @(posedge clk) begin
        if (rst) begin
            prod <= 16'd0;
            acc  <= 20'd0;
        end else if (en) begin
            prod <= a * b;
            acc  <= (clr ? 20'd0 : acc) + a * b;
        end
    end
endmodule
