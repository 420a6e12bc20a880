module freq_div (CLK_in,CLK_50,CLK_10,CLK_1,RST);
    input CLK_in,RST;
    output reg CLK_50,CLK_10,CLK_1;
    // resynth: 100 reachable states of 15 flip-flop bits, 100 after merging; binary code
    reg [6:0] rtla_s;
    wire [0:0] rtla_v = 1'b0;
    reg [2:0] rtla_o;
    always @(posedge CLK_in or posedge RST)
        if (RST) rtla_s <= 7'd0;
        else case (rtla_s)
            7'd0: begin
                rtla_s <= 7'd1;
            end
            7'd1: begin
                rtla_s <= 7'd2;
            end
            7'd2: begin
                rtla_s <= 7'd3;
            end
            7'd3: begin
                rtla_s <= 7'd4;
            end
            7'd4: begin
                rtla_s <= 7'd5;
            end
            7'd5: begin
                rtla_s <= 7'd6;
            end
            7'd6: begin
                rtla_s <= 7'd7;
            end
            7'd7: begin
                rtla_s <= 7'd8;
            end
            7'd8: begin
                rtla_s <= 7'd9;
            end
            7'd9: begin
                rtla_s <= 7'd10;
            end
            7'd10: begin
                rtla_s <= 7'd11;
            end
            7'd11: begin
                rtla_s <= 7'd12;
            end
            7'd12: begin
                rtla_s <= 7'd13;
            end
            7'd13: begin
                rtla_s <= 7'd14;
            end
            7'd14: begin
                rtla_s <= 7'd15;
            end
            7'd15: begin
                rtla_s <= 7'd16;
            end
            7'd16: begin
                rtla_s <= 7'd17;
            end
            7'd17: begin
                rtla_s <= 7'd18;
            end
            7'd18: begin
                rtla_s <= 7'd19;
            end
            7'd19: begin
                rtla_s <= 7'd20;
            end
            7'd20: begin
                rtla_s <= 7'd21;
            end
            7'd21: begin
                rtla_s <= 7'd22;
            end
            7'd22: begin
                rtla_s <= 7'd23;
            end
            7'd23: begin
                rtla_s <= 7'd24;
            end
            7'd24: begin
                rtla_s <= 7'd25;
            end
            7'd25: begin
                rtla_s <= 7'd26;
            end
            7'd26: begin
                rtla_s <= 7'd27;
            end
            7'd27: begin
                rtla_s <= 7'd28;
            end
            7'd28: begin
                rtla_s <= 7'd29;
            end
            7'd29: begin
                rtla_s <= 7'd30;
            end
            7'd30: begin
                rtla_s <= 7'd31;
            end
            7'd31: begin
                rtla_s <= 7'd32;
            end
            7'd32: begin
                rtla_s <= 7'd33;
            end
            7'd33: begin
                rtla_s <= 7'd34;
            end
            7'd34: begin
                rtla_s <= 7'd35;
            end
            7'd35: begin
                rtla_s <= 7'd36;
            end
            7'd36: begin
                rtla_s <= 7'd37;
            end
            7'd37: begin
                rtla_s <= 7'd38;
            end
            7'd38: begin
                rtla_s <= 7'd39;
            end
            7'd39: begin
                rtla_s <= 7'd40;
            end
            7'd40: begin
                rtla_s <= 7'd41;
            end
            7'd41: begin
                rtla_s <= 7'd42;
            end
            7'd42: begin
                rtla_s <= 7'd43;
            end
            7'd43: begin
                rtla_s <= 7'd44;
            end
            7'd44: begin
                rtla_s <= 7'd45;
            end
            7'd45: begin
                rtla_s <= 7'd46;
            end
            7'd46: begin
                rtla_s <= 7'd47;
            end
            7'd47: begin
                rtla_s <= 7'd48;
            end
            7'd48: begin
                rtla_s <= 7'd49;
            end
            7'd49: begin
                rtla_s <= 7'd50;
            end
            7'd50: begin
                rtla_s <= 7'd51;
            end
            7'd51: begin
                rtla_s <= 7'd52;
            end
            7'd52: begin
                rtla_s <= 7'd53;
            end
            7'd53: begin
                rtla_s <= 7'd54;
            end
            7'd54: begin
                rtla_s <= 7'd55;
            end
            7'd55: begin
                rtla_s <= 7'd56;
            end
            7'd56: begin
                rtla_s <= 7'd57;
            end
            7'd57: begin
                rtla_s <= 7'd58;
            end
            7'd58: begin
                rtla_s <= 7'd59;
            end
            7'd59: begin
                rtla_s <= 7'd60;
            end
            7'd60: begin
                rtla_s <= 7'd61;
            end
            7'd61: begin
                rtla_s <= 7'd62;
            end
            7'd62: begin
                rtla_s <= 7'd63;
            end
            7'd63: begin
                rtla_s <= 7'd64;
            end
            7'd64: begin
                rtla_s <= 7'd65;
            end
            7'd65: begin
                rtla_s <= 7'd66;
            end
            7'd66: begin
                rtla_s <= 7'd67;
            end
            7'd67: begin
                rtla_s <= 7'd68;
            end
            7'd68: begin
                rtla_s <= 7'd69;
            end
            7'd69: begin
                rtla_s <= 7'd70;
            end
            7'd70: begin
                rtla_s <= 7'd71;
            end
            7'd71: begin
                rtla_s <= 7'd72;
            end
            7'd72: begin
                rtla_s <= 7'd73;
            end
            7'd73: begin
                rtla_s <= 7'd74;
            end
            7'd74: begin
                rtla_s <= 7'd75;
            end
            7'd75: begin
                rtla_s <= 7'd76;
            end
            7'd76: begin
                rtla_s <= 7'd77;
            end
            7'd77: begin
                rtla_s <= 7'd78;
            end
            7'd78: begin
                rtla_s <= 7'd79;
            end
            7'd79: begin
                rtla_s <= 7'd80;
            end
            7'd80: begin
                rtla_s <= 7'd81;
            end
            7'd81: begin
                rtla_s <= 7'd82;
            end
            7'd82: begin
                rtla_s <= 7'd83;
            end
            7'd83: begin
                rtla_s <= 7'd84;
            end
            7'd84: begin
                rtla_s <= 7'd85;
            end
            7'd85: begin
                rtla_s <= 7'd86;
            end
            7'd86: begin
                rtla_s <= 7'd87;
            end
            7'd87: begin
                rtla_s <= 7'd88;
            end
            7'd88: begin
                rtla_s <= 7'd89;
            end
            7'd89: begin
                rtla_s <= 7'd90;
            end
            7'd90: begin
                rtla_s <= 7'd91;
            end
            7'd91: begin
                rtla_s <= 7'd92;
            end
            7'd92: begin
                rtla_s <= 7'd93;
            end
            7'd93: begin
                rtla_s <= 7'd94;
            end
            7'd94: begin
                rtla_s <= 7'd95;
            end
            7'd95: begin
                rtla_s <= 7'd96;
            end
            7'd96: begin
                rtla_s <= 7'd97;
            end
            7'd97: begin
                rtla_s <= 7'd98;
            end
            7'd98: begin
                rtla_s <= 7'd99;
            end
            7'd99: begin
                rtla_s <= 7'd0;
            end
            default: rtla_s <= 7'd0;
        endcase
    always @* begin
        rtla_o = 3'd0;
        case (rtla_s)
            7'd1: begin
                rtla_o = 3'd1;
            end
            7'd3: begin
                rtla_o = 3'd1;
            end
            7'd5: begin
                rtla_o = 3'd3;
            end
            7'd6: begin
                rtla_o = 3'd2;
            end
            7'd7: begin
                rtla_o = 3'd3;
            end
            7'd8: begin
                rtla_o = 3'd2;
            end
            7'd9: begin
                rtla_o = 3'd3;
            end
            7'd11: begin
                rtla_o = 3'd1;
            end
            7'd13: begin
                rtla_o = 3'd1;
            end
            7'd15: begin
                rtla_o = 3'd3;
            end
            7'd16: begin
                rtla_o = 3'd2;
            end
            7'd17: begin
                rtla_o = 3'd3;
            end
            7'd18: begin
                rtla_o = 3'd2;
            end
            7'd19: begin
                rtla_o = 3'd3;
            end
            7'd21: begin
                rtla_o = 3'd1;
            end
            7'd23: begin
                rtla_o = 3'd1;
            end
            7'd25: begin
                rtla_o = 3'd3;
            end
            7'd26: begin
                rtla_o = 3'd2;
            end
            7'd27: begin
                rtla_o = 3'd3;
            end
            7'd28: begin
                rtla_o = 3'd2;
            end
            7'd29: begin
                rtla_o = 3'd3;
            end
            7'd31: begin
                rtla_o = 3'd1;
            end
            7'd33: begin
                rtla_o = 3'd1;
            end
            7'd35: begin
                rtla_o = 3'd3;
            end
            7'd36: begin
                rtla_o = 3'd2;
            end
            7'd37: begin
                rtla_o = 3'd3;
            end
            7'd38: begin
                rtla_o = 3'd2;
            end
            7'd39: begin
                rtla_o = 3'd3;
            end
            7'd41: begin
                rtla_o = 3'd1;
            end
            7'd43: begin
                rtla_o = 3'd1;
            end
            7'd45: begin
                rtla_o = 3'd3;
            end
            7'd46: begin
                rtla_o = 3'd2;
            end
            7'd47: begin
                rtla_o = 3'd3;
            end
            7'd48: begin
                rtla_o = 3'd2;
            end
            7'd49: begin
                rtla_o = 3'd3;
            end
            7'd50: begin
                rtla_o = 3'd4;
            end
            7'd51: begin
                rtla_o = 3'd5;
            end
            7'd52: begin
                rtla_o = 3'd4;
            end
            7'd53: begin
                rtla_o = 3'd5;
            end
            7'd54: begin
                rtla_o = 3'd4;
            end
            7'd55: begin
                rtla_o = 3'd7;
            end
            7'd56: begin
                rtla_o = 3'd6;
            end
            7'd57: begin
                rtla_o = 3'd7;
            end
            7'd58: begin
                rtla_o = 3'd6;
            end
            7'd59: begin
                rtla_o = 3'd7;
            end
            7'd60: begin
                rtla_o = 3'd4;
            end
            7'd61: begin
                rtla_o = 3'd5;
            end
            7'd62: begin
                rtla_o = 3'd4;
            end
            7'd63: begin
                rtla_o = 3'd5;
            end
            7'd64: begin
                rtla_o = 3'd4;
            end
            7'd65: begin
                rtla_o = 3'd7;
            end
            7'd66: begin
                rtla_o = 3'd6;
            end
            7'd67: begin
                rtla_o = 3'd7;
            end
            7'd68: begin
                rtla_o = 3'd6;
            end
            7'd69: begin
                rtla_o = 3'd7;
            end
            7'd70: begin
                rtla_o = 3'd4;
            end
            7'd71: begin
                rtla_o = 3'd5;
            end
            7'd72: begin
                rtla_o = 3'd4;
            end
            7'd73: begin
                rtla_o = 3'd5;
            end
            7'd74: begin
                rtla_o = 3'd4;
            end
            7'd75: begin
                rtla_o = 3'd7;
            end
            7'd76: begin
                rtla_o = 3'd6;
            end
            7'd77: begin
                rtla_o = 3'd7;
            end
            7'd78: begin
                rtla_o = 3'd6;
            end
            7'd79: begin
                rtla_o = 3'd7;
            end
            7'd80: begin
                rtla_o = 3'd4;
            end
            7'd81: begin
                rtla_o = 3'd5;
            end
            7'd82: begin
                rtla_o = 3'd4;
            end
            7'd83: begin
                rtla_o = 3'd5;
            end
            7'd84: begin
                rtla_o = 3'd4;
            end
            7'd85: begin
                rtla_o = 3'd7;
            end
            7'd86: begin
                rtla_o = 3'd6;
            end
            7'd87: begin
                rtla_o = 3'd7;
            end
            7'd88: begin
                rtla_o = 3'd6;
            end
            7'd89: begin
                rtla_o = 3'd7;
            end
            7'd90: begin
                rtla_o = 3'd4;
            end
            7'd91: begin
                rtla_o = 3'd5;
            end
            7'd92: begin
                rtla_o = 3'd4;
            end
            7'd93: begin
                rtla_o = 3'd5;
            end
            7'd94: begin
                rtla_o = 3'd4;
            end
            7'd95: begin
                rtla_o = 3'd7;
            end
            7'd96: begin
                rtla_o = 3'd6;
            end
            7'd97: begin
                rtla_o = 3'd7;
            end
            7'd98: begin
                rtla_o = 3'd6;
            end
            7'd99: begin
                rtla_o = 3'd7;
            end
            default: ;
        endcase
    end
    always @* CLK_50 = rtla_o[0:0];
    always @* CLK_10 = rtla_o[1:1];
    always @* CLK_1 = rtla_o[2:2];
endmodule
