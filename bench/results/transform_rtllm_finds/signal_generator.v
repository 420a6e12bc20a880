module signal_generator(
  input clk,
  input rst_n,
  output reg [4:0] wave
);
    // resynth: 64 reachable states of 8 flip-flop bits, 64 after merging; binary code
    reg [5:0] rtla_s;
    wire [0:0] rtla_v = 1'b0;
    reg [4:0] rtla_o;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) rtla_s <= 6'd0;
        else case (rtla_s)
            6'd0: begin
                rtla_s <= 6'd1;
            end
            6'd1: begin
                rtla_s <= 6'd2;
            end
            6'd2: begin
                rtla_s <= 6'd3;
            end
            6'd3: begin
                rtla_s <= 6'd4;
            end
            6'd4: begin
                rtla_s <= 6'd5;
            end
            6'd5: begin
                rtla_s <= 6'd6;
            end
            6'd6: begin
                rtla_s <= 6'd7;
            end
            6'd7: begin
                rtla_s <= 6'd8;
            end
            6'd8: begin
                rtla_s <= 6'd9;
            end
            6'd9: begin
                rtla_s <= 6'd10;
            end
            6'd10: begin
                rtla_s <= 6'd11;
            end
            6'd11: begin
                rtla_s <= 6'd12;
            end
            6'd12: begin
                rtla_s <= 6'd13;
            end
            6'd13: begin
                rtla_s <= 6'd14;
            end
            6'd14: begin
                rtla_s <= 6'd15;
            end
            6'd15: begin
                rtla_s <= 6'd16;
            end
            6'd16: begin
                rtla_s <= 6'd17;
            end
            6'd17: begin
                rtla_s <= 6'd18;
            end
            6'd18: begin
                rtla_s <= 6'd19;
            end
            6'd19: begin
                rtla_s <= 6'd20;
            end
            6'd20: begin
                rtla_s <= 6'd21;
            end
            6'd21: begin
                rtla_s <= 6'd22;
            end
            6'd22: begin
                rtla_s <= 6'd23;
            end
            6'd23: begin
                rtla_s <= 6'd24;
            end
            6'd24: begin
                rtla_s <= 6'd25;
            end
            6'd25: begin
                rtla_s <= 6'd26;
            end
            6'd26: begin
                rtla_s <= 6'd27;
            end
            6'd27: begin
                rtla_s <= 6'd28;
            end
            6'd28: begin
                rtla_s <= 6'd29;
            end
            6'd29: begin
                rtla_s <= 6'd30;
            end
            6'd30: begin
                rtla_s <= 6'd31;
            end
            6'd31: begin
                rtla_s <= 6'd32;
            end
            6'd32: begin
                rtla_s <= 6'd33;
            end
            6'd33: begin
                rtla_s <= 6'd34;
            end
            6'd34: begin
                rtla_s <= 6'd35;
            end
            6'd35: begin
                rtla_s <= 6'd36;
            end
            6'd36: begin
                rtla_s <= 6'd37;
            end
            6'd37: begin
                rtla_s <= 6'd38;
            end
            6'd38: begin
                rtla_s <= 6'd39;
            end
            6'd39: begin
                rtla_s <= 6'd40;
            end
            6'd40: begin
                rtla_s <= 6'd41;
            end
            6'd41: begin
                rtla_s <= 6'd42;
            end
            6'd42: begin
                rtla_s <= 6'd43;
            end
            6'd43: begin
                rtla_s <= 6'd44;
            end
            6'd44: begin
                rtla_s <= 6'd45;
            end
            6'd45: begin
                rtla_s <= 6'd46;
            end
            6'd46: begin
                rtla_s <= 6'd47;
            end
            6'd47: begin
                rtla_s <= 6'd48;
            end
            6'd48: begin
                rtla_s <= 6'd49;
            end
            6'd49: begin
                rtla_s <= 6'd50;
            end
            6'd50: begin
                rtla_s <= 6'd51;
            end
            6'd51: begin
                rtla_s <= 6'd52;
            end
            6'd52: begin
                rtla_s <= 6'd53;
            end
            6'd53: begin
                rtla_s <= 6'd54;
            end
            6'd54: begin
                rtla_s <= 6'd55;
            end
            6'd55: begin
                rtla_s <= 6'd56;
            end
            6'd56: begin
                rtla_s <= 6'd57;
            end
            6'd57: begin
                rtla_s <= 6'd58;
            end
            6'd58: begin
                rtla_s <= 6'd59;
            end
            6'd59: begin
                rtla_s <= 6'd60;
            end
            6'd60: begin
                rtla_s <= 6'd61;
            end
            6'd61: begin
                rtla_s <= 6'd62;
            end
            6'd62: begin
                rtla_s <= 6'd63;
            end
            6'd63: begin
                rtla_s <= 6'd0;
            end
            default: rtla_s <= 6'd0;
        endcase
    always @* begin
        rtla_o = 5'd0;
        case (rtla_s)
            6'd1: begin
                rtla_o = 5'd1;
            end
            6'd2: begin
                rtla_o = 5'd2;
            end
            6'd3: begin
                rtla_o = 5'd3;
            end
            6'd4: begin
                rtla_o = 5'd4;
            end
            6'd5: begin
                rtla_o = 5'd5;
            end
            6'd6: begin
                rtla_o = 5'd6;
            end
            6'd7: begin
                rtla_o = 5'd7;
            end
            6'd8: begin
                rtla_o = 5'd8;
            end
            6'd9: begin
                rtla_o = 5'd9;
            end
            6'd10: begin
                rtla_o = 5'd10;
            end
            6'd11: begin
                rtla_o = 5'd11;
            end
            6'd12: begin
                rtla_o = 5'd12;
            end
            6'd13: begin
                rtla_o = 5'd13;
            end
            6'd14: begin
                rtla_o = 5'd14;
            end
            6'd15: begin
                rtla_o = 5'd15;
            end
            6'd16: begin
                rtla_o = 5'd16;
            end
            6'd17: begin
                rtla_o = 5'd17;
            end
            6'd18: begin
                rtla_o = 5'd18;
            end
            6'd19: begin
                rtla_o = 5'd19;
            end
            6'd20: begin
                rtla_o = 5'd20;
            end
            6'd21: begin
                rtla_o = 5'd21;
            end
            6'd22: begin
                rtla_o = 5'd22;
            end
            6'd23: begin
                rtla_o = 5'd23;
            end
            6'd24: begin
                rtla_o = 5'd24;
            end
            6'd25: begin
                rtla_o = 5'd25;
            end
            6'd26: begin
                rtla_o = 5'd26;
            end
            6'd27: begin
                rtla_o = 5'd27;
            end
            6'd28: begin
                rtla_o = 5'd28;
            end
            6'd29: begin
                rtla_o = 5'd29;
            end
            6'd30: begin
                rtla_o = 5'd30;
            end
            6'd31: begin
                rtla_o = 5'd31;
            end
            6'd32: begin
                rtla_o = 5'd31;
            end
            6'd33: begin
                rtla_o = 5'd30;
            end
            6'd34: begin
                rtla_o = 5'd29;
            end
            6'd35: begin
                rtla_o = 5'd28;
            end
            6'd36: begin
                rtla_o = 5'd27;
            end
            6'd37: begin
                rtla_o = 5'd26;
            end
            6'd38: begin
                rtla_o = 5'd25;
            end
            6'd39: begin
                rtla_o = 5'd24;
            end
            6'd40: begin
                rtla_o = 5'd23;
            end
            6'd41: begin
                rtla_o = 5'd22;
            end
            6'd42: begin
                rtla_o = 5'd21;
            end
            6'd43: begin
                rtla_o = 5'd20;
            end
            6'd44: begin
                rtla_o = 5'd19;
            end
            6'd45: begin
                rtla_o = 5'd18;
            end
            6'd46: begin
                rtla_o = 5'd17;
            end
            6'd47: begin
                rtla_o = 5'd16;
            end
            6'd48: begin
                rtla_o = 5'd15;
            end
            6'd49: begin
                rtla_o = 5'd14;
            end
            6'd50: begin
                rtla_o = 5'd13;
            end
            6'd51: begin
                rtla_o = 5'd12;
            end
            6'd52: begin
                rtla_o = 5'd11;
            end
            6'd53: begin
                rtla_o = 5'd10;
            end
            6'd54: begin
                rtla_o = 5'd9;
            end
            6'd55: begin
                rtla_o = 5'd8;
            end
            6'd56: begin
                rtla_o = 5'd7;
            end
            6'd57: begin
                rtla_o = 5'd6;
            end
            6'd58: begin
                rtla_o = 5'd5;
            end
            6'd59: begin
                rtla_o = 5'd4;
            end
            6'd60: begin
                rtla_o = 5'd3;
            end
            6'd61: begin
                rtla_o = 5'd2;
            end
            6'd62: begin
                rtla_o = 5'd1;
            end
            default: ;
        endcase
    end
    always @* wave = rtla_o[4:0];
endmodule
