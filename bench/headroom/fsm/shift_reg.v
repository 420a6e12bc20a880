// kind: encoding
// change: the FSM (with s5 equivalent to s1) is exactly 'the last four inputs were 1001', so it becomes a 4-bit input shift register and MATCH = (h == 1001) & IN; Yosys does not minimize or re-derive the state machine this way.
module fsm(IN,MATCH,CLK,RST);
input IN,CLK,RST;
output MATCH;
reg [3:0] h;
always @(posedge CLK or posedge RST)
    if (RST) h <= 4'b0;
    else h <= {h[2:0], IN};
assign MATCH = (h == 4'b1001) & IN;
endmodule
