// kind: width
// change: the ==59 tests on Secs and Mins only check the five bits set in 59 (both stay below 60) and the Mins/Hours updates are nested under the shared Secs test, a reachability fact synthesis cannot derive (the same trick on Hours, or a 5-bit Hours, is cheaper still but the prover does not close it in time).
module calendar(CLK,RST,Hours,Mins,Secs);
input CLK,RST;
output [5:0] Hours,Mins,Secs;
reg [5:0] Hours,Mins,Secs;
wire s59 = Secs[5] & Secs[4] & Secs[3] & Secs[1] & Secs[0];
wire m59 = Mins[5] & Mins[4] & Mins[3] & Mins[1] & Mins[0];
always@(posedge CLK or posedge RST) begin
	if (RST) Secs <= 0;
	else if (s59) Secs <= 0;
	else Secs <= Secs + 1;
end
always@(posedge CLK or posedge RST) begin
	if (RST) Mins <= 0;
	else if (s59) begin if (m59) Mins <= 0; else Mins <= Mins + 1; end
end
always@(posedge CLK or posedge RST) begin
	if (RST) Hours <= 0;
	else if (s59 & m59) begin if (Hours == 23) Hours <= 0; else Hours <= Hours + 1; end
end
endmodule
