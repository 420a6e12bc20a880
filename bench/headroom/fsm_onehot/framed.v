// kind: encoding
// change: the frame position is encoded in the data shift register itself (loaded with {stop, data, start} and shifted until empty), so the 11-state phase register disappears; Yosys re-encodes only state registers it extracts as FSMs, never a shift register, and never merges two registers into one encoding.
module fsm_onehot (
    input        clk,
    input        rst,
    input        go,
    input  [7:0] data,
    output       tx,
    output       busy
);
    reg [9:0] frame;         // bits still to send, LSB first; all zero when idle

    assign busy = (frame != 10'd0);

    always @(posedge clk) begin
        if (rst)            frame <= 10'd0;
        else if (busy)      frame <= {1'b0, frame[9:1]};
        else if (go)        frame <= {1'b1, data, 1'b0};
    end

    assign tx = ~busy | frame[0];
endmodule
