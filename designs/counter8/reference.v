// Reference for counter8: synchronous reset > load > enable.
module counter8 (
    input            clk,
    input            rst,
    input            en,
    input            load,
    input      [7:0] d,
    output reg [7:0] q,
    output           tc
);
    always @(posedge clk) begin
        if (rst)       q <= 8'd0;
        else if (load) q <= d;
        else if (en)   q <= q + 8'd1;
    end
    assign tc = en & (q == 8'hFF);
endmodule
