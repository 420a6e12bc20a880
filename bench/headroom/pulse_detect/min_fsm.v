// kind: encoding
// change: s1 and s3 are equivalent states, so the FSM is minimized to 3 states encoded as z = last input was 0 and c = state s2 (z' = ~in, c' = z & in), a state minimization synthesis does not do.
module pulse_detect(
    input clk,
    input rst_n,
    input data_in,
    output reg data_out
);

reg z;   // pulse_level1 in {s1, s3}
reg c;   // pulse_level1 == s2

always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
        z <= 1'b0;
        c <= 1'b0;
    end else begin
        z <= ~data_in;
        c <= z & data_in;
    end
end

always @(*) begin
    data_out = rst_n & c & ~data_in;
end

endmodule
