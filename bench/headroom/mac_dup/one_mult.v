// kind: share
// change: the product is computed once and feeds both the product register and the accumulator; in the reference the two `a * b` sit in expressions of different widths (16 and 20 bits), so Yosys' opt_merge sees two different multipliers and alumacc folds the second into a multiply-add, leaving two multiplier arrays.
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
    wire [15:0] p = a * b;

    always @(posedge clk) begin
        if (rst) begin
            prod <= 16'd0;
            acc  <= 20'd0;
        end else if (en) begin
            prod <= p;
            acc  <= (clr ? 20'd0 : acc) + p;
        end
    end
endmodule
