// kind: width
// change: where areg[i-1] and breg<<(i-1) are used, 1 <= i <= 16, so the index and shift amount are the 4-bit i-1 instead of 5 bits, dropping the fifth barrel-shifter stage and half the bit-select mux; Yosys does not narrow a shift amount from the enclosing branch condition.
module multi_16bit(
    input clk,
    input rst_n,
    input start,
    input [15:0] ain,
    input [15:0] bin,
    output [31:0] yout,
    output done
);
reg [15:0] areg;
reg [15:0] breg;
reg [31:0] yout_r;
reg done_r;
reg [4:0] i;
wire [4:0] im1 = i - 1'b1;
wire [3:0] k = im1[3:0];          // 1 <= i <= 16 where it is used: i-1 fits in 4 bits
always @(posedge clk or negedge rst_n)
    if (!rst_n) i <= 5'd0;
    else if (start && i < 5'd17) i <= i + 1'b1;
    else if (!start) i <= 5'd0;
always @(posedge clk or negedge rst_n)
    if (!rst_n) done_r <= 1'b0;
    else if (i == 5'd16) done_r <= 1'b1;
    else if (i == 5'd17) done_r <= 1'b0;
assign done = done_r;
always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
        areg <= 16'h0000;
        breg <= 16'h0000;
        yout_r <= 32'h00000000;
    end
    else if (start) begin
        if (i == 5'd0) begin
            areg <= ain;
            breg <= bin;
        end
        else if (i < 5'd17) begin
            if (areg[k])
                yout_r <= yout_r + ({16'h0000, breg} << k);
        end
    end
end
assign yout = yout_r;
endmodule
