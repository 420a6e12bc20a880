// kind: encoding
// change: one-hot state flip-flops instead of a 3-bit code; measured 0.99x: Yosys fsm extraction already re-encodes the FSM, so the encoding is not headroom here
module fsm_seq (
    input  clk,
    input  rst_n,
    input  din,
    output det
);
    reg [4:0] s;   // s[i]: in state Si
    wire [4:0] n;
    assign n[0] = ~din & (s[0] | s[2]);
    assign n[1] = din & (s[0] | s[1] | s[4]);
    assign n[2] = ~din & (s[1] | s[3] | s[4]);
    assign n[3] = din & s[2];
    assign n[4] = din & s[3];
    always @(posedge clk) begin
        if (!rst_n) s <= 5'b00001;
        else        s <= n;
    end
    assign det = s[4];
endmodule
