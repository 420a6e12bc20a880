// kind: share
// change: the terminal test count == freq - 1 (a 32-bit compare) becomes {carry, count + 1} == {0, freq}, reusing the incrementer the counter already needs instead of a separate 8-bit decrementer on freq, which synthesis does not derive.
module square_wave(
    input clk,
    input [7:0] freq,
    output reg wave_out
);

reg [7:0] count;
wire [8:0] count_inc = count + 9'd1;   // bit 8 set only at count 255, where freq - 1 (32 bits) never matches

initial begin
    wave_out = 0;
    count = 0;
end

always @(posedge clk) begin
    if (count_inc == {1'b0, freq}) begin
        count <= 0;
        wave_out <= ~wave_out;
    end else begin
        count <= count_inc[7:0];
    end
end

endmodule
