// Divide-by-7 clock with a 50% duty cycle: a rising-edge counter and high phase, and a copy of the high
// phase taken half a source cycle later on the falling edge; the output is high while either is.
module oddclk7 (
    input  clk,
    input  rst_n,
    output clk_out
);
    parameter N = 7;

    reg [2:0] count;
    reg       high_r;   // high for the first (N-1)/2 cycles of each period, on the rising edge
    reg       high_f;   // high_r delayed by half a cycle, on the falling edge

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            count <= 3'd0;
        else if (count == N - 1)
            count <= 3'd0;
        else
            count <= count + 3'd1;
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            high_r <= 1'b0;
        else
            high_r <= (count < (N - 1) / 2);
    end

    always @(negedge clk or negedge rst_n) begin
        if (!rst_n)
            high_f <= 1'b0;
        else
            high_f <= high_r;
    end

    assign clk_out = high_r | high_f;
endmodule
