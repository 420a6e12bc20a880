// kind: encoding
// change: s5 behaves exactly like s1, and the remaining states are 'suffix of 1001 seen so far', so the FSM becomes four history flags (last 1, last 10, last 100, last 1001) each set by one AND, and MATCH = flag1001 & IN; the RST term of MATCH is redundant under the async reset. Yosys neither merges equivalent states nor finds this encoding.
module fsm(IN,MATCH,CLK,RST);
input IN,CLK,RST;
output MATCH;
reg a, b, c, d;
always @(posedge CLK or posedge RST)
    if (RST) {a,b,c,d} <= 4'b0;
    else begin a <= IN; b <= a & ~IN; c <= b & ~IN; d <= c & IN; end
assign MATCH = d & IN;
endmodule
