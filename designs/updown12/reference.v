// Reference for updown12: a 12-bit up/down counter with enable, its wrap-arounds written out as one would
// describe them (at the top it goes to zero counting up, at zero to the top counting down).
module updown12 (
    input             clk,
    input             rst,
    input             en,
    input             up,
    output reg [11:0] q
);
    always @(posedge clk) begin
        if (rst)
            q <= 12'd0;
        else if (en) begin
            if (up) begin
                if (q == 12'hFFF) q <= 12'd0;
                else              q <= q + 12'd1;
            end else begin
                if (q == 12'd0)   q <= 12'hFFF;
                else              q <= q - 12'd1;
            end
        end
    end
endmodule
