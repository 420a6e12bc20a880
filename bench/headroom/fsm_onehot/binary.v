// kind: encoding
// change: the eleven frame positions are kept in a 4-bit binary phase counter instead of a one-hot shift register (11 live flip-flops of the 16-bit register); Yosys' FSM extraction does not recognize a shifted state register, so it keeps the reference's encoding.
module fsm_onehot (
    input        clk,
    input        rst,
    input        go,
    input  [7:0] data,
    output       tx,
    output       busy
);
    reg [3:0] ph;            // 0 idle, 1 start bit, 2..9 data bits, 10 stop bit
    reg [7:0] sh;

    always @(posedge clk) begin
        if (rst) begin
            ph <= 4'd0;
            sh <= 8'd0;
        end else if (ph == 4'd0) begin
            if (go) begin
                ph <= 4'd1;
                sh <= data;
            end
        end else if (ph == 4'd10) begin
            ph <= 4'd0;
        end else begin
            ph <= ph + 4'd1;
            if (ph != 4'd1) sh <= {1'b0, sh[7:1]};
        end
    end

    assign tx   = (ph == 4'd1) ? 1'b0 : (ph == 4'd0 || ph == 4'd10) ? 1'b1 : sh[0];
    assign busy = (ph != 4'd0);
endmodule
