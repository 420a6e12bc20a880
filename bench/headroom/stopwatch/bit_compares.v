// kind: bound_compare
// change: tenths stays in 0..9 and secs in 0..59, so tenths == 9 is tenths[3] & tenths[0] and secs == 59 the AND of the five bits set in 59 (every value below the bound lacks one of them), a reachability fact synthesis cannot derive.
module stopwatch (
    input            clk,
    input            rst,
    input            run,
    output reg [3:0] tenths,
    output reg [5:0] secs,
    output reg       lap
);
    wire t9  = tenths[3] & tenths[0];
    wire s59 = secs[5] & secs[4] & secs[3] & secs[1] & secs[0];

    always @(posedge clk) begin
        if (rst)
            tenths <= 4'd0;
        else if (run) begin
            if (t9) tenths <= 4'd0;
            else    tenths <= tenths + 4'd1;
        end
    end

    always @(posedge clk) begin
        if (rst)
            secs <= 6'd0;
        else if (run && t9) begin
            if (s59) secs <= 6'd0;
            else     secs <= secs + 6'd1;
        end
    end

    always @(posedge clk) begin
        if (rst) lap <= 1'b0;
        else     lap <= run && t9 && s59;
    end
endmodule
