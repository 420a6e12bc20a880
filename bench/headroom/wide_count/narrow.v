// kind: width
// change: the cycle counter is 5 bits and the phase register 2 bits (the largest values they reach are 24 and 2) instead of 32 and 16; the upper bits stay 0 only by induction over the wrap conditions, which Yosys' width reduction (a combinational analysis) cannot see.
module wide_count (
    input        clk,
    input        rst,
    input        en,
    output [4:0] count,
    output [1:0] phase,
    output       tick
);
    reg [4:0] cnt;
    reg [1:0] ph;

    wire last = (cnt == 5'd24);

    always @(posedge clk) begin
        if (rst) begin
            cnt <= 5'd0;
            ph  <= 2'd0;
        end else if (en) begin
            if (!last)
                cnt <= cnt + 5'd1;
            else begin
                cnt <= 5'd0;
                ph  <= (ph == 2'd2) ? 2'd0 : ph + 2'd1;
            end
        end
    end

    assign tick  = en & last;
    assign count = cnt;
    assign phase = ph;
endmodule
