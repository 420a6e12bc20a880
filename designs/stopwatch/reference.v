// Reference for stopwatch: tenths 0..9 and seconds 0..59, each written as a compare with its last value and an
// increment, the way one describes it.
module stopwatch (
    input            clk,
    input            rst,
    input            run,
    output reg [3:0] tenths,
    output reg [5:0] secs,
    output reg       lap
);
    always @(posedge clk) begin
        if (rst)
            tenths <= 4'd0;
        else if (run) begin
            if (tenths == 4'd9) tenths <= 4'd0;
            else                tenths <= tenths + 4'd1;
        end
    end

    always @(posedge clk) begin
        if (rst)
            secs <= 6'd0;
        else if (run && tenths == 4'd9) begin
            if (secs == 6'd59) secs <= 6'd0;
            else               secs <= secs + 6'd1;
        end
    end

    always @(posedge clk) begin
        if (rst) lap <= 1'b0;
        else     lap <= run && tenths == 4'd9 && secs == 6'd59;
    end
endmodule
