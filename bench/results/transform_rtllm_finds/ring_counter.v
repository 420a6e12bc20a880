module ring_counter (
    input wire clk,
    input wire reset,
    output reg [7:0] out
);
    // resynth: 8 reachable states of 9 flip-flop bits, 8 after merging; binary code
    reg [2:0] rtla_s;
    wire [0:0] rtla_v = 1'b0;
    reg [7:0] rtla_o;
    always @(posedge clk or posedge reset)
        if (reset) rtla_s <= 3'd0;
        else case (rtla_s)
            3'd0: begin
                rtla_s <= 3'd1;
            end
            3'd1: begin
                rtla_s <= 3'd2;
            end
            3'd2: begin
                rtla_s <= 3'd3;
            end
            3'd3: begin
                rtla_s <= 3'd4;
            end
            3'd4: begin
                rtla_s <= 3'd5;
            end
            3'd5: begin
                rtla_s <= 3'd6;
            end
            3'd6: begin
                rtla_s <= 3'd7;
            end
            3'd7: begin
                rtla_s <= 3'd0;
            end
            default: rtla_s <= 3'd0;
        endcase
    // datapath rewrite (delay-first, e-graph): 8 eq
    wire dp39_1 = rtla_s == 3'd0;
    wire dp39_2 = dp39_1 | (rtla_s == 3'd1);
    wire dp39_3 = rtla_s == 3'd2;
    wire dp39_4 = rtla_s == 3'd3;
    wire dp39_5 = (dp39_3 | dp39_4) | (rtla_s == 3'd4);
    wire dp39_6 = rtla_s == 3'd5;
    wire dp39_7 = dp39_6 | (rtla_s == 3'd6);
    wire dp39_8 = rtla_s == 3'd7;
    always @* begin
        rtla_o = dp39_2 ? (dp39_1 ? 8'd1 : 8'd2) : (dp39_5 ? (dp39_3 ? 8'd4 : (dp39_4 ? 8'd8 : 8'd16)) : (dp39_7 ? (dp39_6 ? 8'd32 : 8'd64) : (dp39_8 ? 8'd128 : 8'd0)));
    end
    always @* out = rtla_o[7:0];
endmodule
