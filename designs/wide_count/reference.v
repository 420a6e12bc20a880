// Reference for wide_count: three-phase sequencer, 25 enabled cycles per phase.
module wide_count (
    input        clk,
    input        rst,
    input        en,
    output [4:0] count,
    output [1:0] phase,
    output       tick
);
    reg [31:0] cnt;      // enabled cycles spent in the current phase
    reg [15:0] ph;       // current phase

    wire last = (cnt == 32'd24);

    always @(posedge clk) begin
        if (rst) begin
            cnt <= 32'd0;
            ph  <= 16'd0;
        end else if (en) begin
            if (!last)
                cnt <= cnt + 32'd1;
            else begin
                cnt <= 32'd0;
                if (ph == 16'd2) ph <= 16'd0;
                else             ph <= ph + 16'd1;
            end
        end
    end

    assign tick  = en & last;
    assign count = cnt[4:0];
    assign phase = ph[1:0];
endmodule
