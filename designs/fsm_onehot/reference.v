// Reference for fsm_onehot: serial transmitter (start bit, 8 data bits LSB first, stop bit),
// sequenced by a one-hot phase register.
module fsm_onehot (
    input        clk,
    input        rst,
    input        go,
    input  [7:0] data,
    output       tx,
    output       busy
);
    // one-hot phase: bit 0 idle, bit 1 start bit, bits 2..9 data bits 0..7, bit 10 stop bit
    reg [15:0] state;
    reg [7:0]  sh;

    always @(posedge clk) begin
        if (rst) begin
            state <= 16'h0001;
            sh    <= 8'd0;
        end else if (state[0]) begin
            if (go) begin
                state <= 16'h0002;
                sh    <= data;
            end
        end else if (state[10]) begin
            state <= 16'h0001;
        end else begin
            state <= state << 1;
            if (!state[1]) sh <= {1'b0, sh[7:1]};
        end
    end

    assign tx   = state[1] ? 1'b0 : (state[0] | state[10]) ? 1'b1 : sh[0];
    assign busy = ~state[0];
endmodule
