// Reference for gray_counter: binary count register, Gray code decoded from it.
module gray_counter (
    input        clk,
    input        rst_n,
    input        en,
    output [7:0] gray
);
    reg [7:0] bin;
    always @(posedge clk) begin
        if (!rst_n)  bin <= 8'd0;
        else if (en) bin <= bin + 8'd1;
    end
    assign gray = bin ^ (bin >> 1);
endmodule
